import { Link, useNavigate } from 'react-router-dom';
import { signUp } from './actions';
import { AuthForm } from './AuthForm';

export function SignUpPage() {
  const navigate = useNavigate();
  return (
    <AuthForm
      title="Create your Vigil account"
      submitLabel="Sign up"
      fields={[
        { name: 'name', label: 'Your name', type: 'text', autoComplete: 'name', required: false },
        { name: 'email', label: 'E-mail', type: 'email', autoComplete: 'username' },
        { name: 'password', label: 'Password', type: 'password', autoComplete: 'new-password', minLength: 8 },
      ]}
      onSubmit={async (v) => {
        await signUp({ email: v.email ?? '', password: v.password ?? '', ...(v.name ? { name: v.name } : {}) });
        navigate('/checks', { replace: true });
      }}
      footer={
        <>
          Have an account? <Link to="/signin">Sign in</Link>
        </>
      }
    />
  );
}
